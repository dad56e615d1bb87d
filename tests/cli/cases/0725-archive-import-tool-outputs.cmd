archive import tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt tests/fixtures/nccl-log/handmade-ib-completion-error-12-env-gdr.txt
