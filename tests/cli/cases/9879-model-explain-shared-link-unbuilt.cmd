model tests/fixtures/spec/pcie-numa32.yaml --op alltoall --explain 64M
