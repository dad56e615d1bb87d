advise --json --spec dgx-h100:4 tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt tests/fixtures/diag/allreduce-4node-32rank.out
