model tests/fixtures/spec/pcie-numa32.yaml --op alltoall -b 64M -e 256M
