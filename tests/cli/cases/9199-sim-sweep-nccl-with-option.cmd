sim --sweep tests/fixtures/sim/sweep-nccl.yaml --nccl 2.21
