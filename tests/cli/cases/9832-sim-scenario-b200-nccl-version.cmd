sim tests/fixtures/sim/nccl-2.18-b200.yaml
