sim tests/fixtures/spec/spine-rail-2to1-pxn-off.yaml --op alltoall -b 256M
