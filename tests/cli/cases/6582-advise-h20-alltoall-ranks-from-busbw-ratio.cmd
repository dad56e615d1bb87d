advise --spec tests/fixtures/spec/hopper-2node-2gpu-roce200.yaml tests/fixtures/nccl-tests/h20-vm-2node-alltoall-vendor-plugin-50gbs-excerpt.txt
