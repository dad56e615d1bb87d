model tests/fixtures/spec/pxn-shared-nic-rail.yaml --op alltoall --algo direct --ppn 4 --explain 256M
