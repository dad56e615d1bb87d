model tests/fixtures/spec/pcie-numa32.yaml --op sendrecv --explain 64M --json
