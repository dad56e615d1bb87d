sim --sweep tests/fixtures/sim/sweep-nccl.yaml
