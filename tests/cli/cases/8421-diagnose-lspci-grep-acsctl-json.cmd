diagnose --json tests/fixtures/lspci/lspci-grep-acsctl-plx-on-and-off-nccl304.txt
