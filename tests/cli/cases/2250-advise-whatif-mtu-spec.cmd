advise --spec tests/fixtures/spec/h100-2node-8x-roce100.yaml tests/fixtures/perftest/roce-ib-write-bw-gpu-dmabuf-all-sizes-92g-mtu1024.txt
