model hgx-h200:2 --ppn 2 --calibrate tests/fixtures/nccl-tests/h20-vm-2node-alltoall-vendor-plugin-50gbs-excerpt.txt --json
