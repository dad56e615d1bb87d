sim --sweep tests/fixtures/sim/sweep-nccl-b200.yaml
