model tests/fixtures/spec/pxn-off-rail.yaml --op sendrecv -b 256M -e 256M --json
