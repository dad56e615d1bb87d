model tests/fixtures/spec/pxn-off-rail.yaml --op alltoall --algo direct --explain 256M
