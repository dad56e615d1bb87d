diagnose tests/fixtures/opensm-conf/nvidia-opensm-conf-cc-options-ignore-excerpt.txt tests/fixtures/perfquery/edr-switch-port-xmitdiscards-linkdowned-x.txt
