model tests/fixtures/spec/pxn-shared-nic-rail.yaml --op alltoall --algo direct --ppn 2 --explain 256M
