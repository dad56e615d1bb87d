diagnose tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt --expect tests/fixtures/diag/expect-bad.yaml
