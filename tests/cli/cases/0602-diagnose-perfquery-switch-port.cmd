diagnose tests/fixtures/perfquery/edr-switch-port-xmitdiscards-linkdowned-x.txt
