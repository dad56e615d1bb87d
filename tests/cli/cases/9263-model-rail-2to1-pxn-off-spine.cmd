model tests/fixtures/spec/spine-rail-2to1-pxn-off.yaml --op alltoall -b 1M -e 256M -f 16
