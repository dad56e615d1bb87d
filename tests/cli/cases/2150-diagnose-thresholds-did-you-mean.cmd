diagnose --thresholds tests/fixtures/diag/thresholds-typo.yaml tests/fixtures/perftest/roce-ib-write-bw-gpu-dmabuf-all-sizes-92g-mtu1024.txt
