advise --spec dgx-h100:2 tests/fixtures/nccl-tests/h20-vm-2node-alltoall-vendor-plugin-50gbs-excerpt.txt
