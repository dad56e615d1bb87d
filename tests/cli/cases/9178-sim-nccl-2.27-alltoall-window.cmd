sim tests/fixtures/spec/pxn-off-rail.yaml --op alltoall --algo direct -b 64M --nccl 2.27
