diagnose tests/fixtures/lspci/lspci-vvv-epyc-gpp-bridge-acs-on-rccl547.txt
