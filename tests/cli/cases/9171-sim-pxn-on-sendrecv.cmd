sim tests/fixtures/spec/pxn-on-rail.yaml --op sendrecv -b 256M -e 256M
