sim tests/fixtures/spec/pxn-on-rail.yaml --op alltoall --algo direct -b 16M -e 16M
