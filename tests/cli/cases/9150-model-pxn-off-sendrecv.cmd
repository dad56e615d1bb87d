model tests/fixtures/spec/pxn-off-rail.yaml --op sendrecv -b 1M -e 256M -f 256
