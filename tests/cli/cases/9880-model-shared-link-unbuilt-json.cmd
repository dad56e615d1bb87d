model tests/fixtures/spec/pcie-numa32.yaml --op sendrecv -b 1M -e 4M --json
