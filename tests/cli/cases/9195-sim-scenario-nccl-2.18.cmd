sim tests/fixtures/sim/nccl-2.18-tree.yaml
