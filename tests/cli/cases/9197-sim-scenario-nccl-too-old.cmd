sim tests/fixtures/sim/nccl-too-old.yaml
