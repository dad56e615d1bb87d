model tests/fixtures/spec/pxn-on-rail.yaml --op alltoall --algo direct --explain 256M
