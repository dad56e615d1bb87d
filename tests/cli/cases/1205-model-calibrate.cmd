model dgx-h100:2 --calibrate tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt
