sim tests/fixtures/sim/a2a-bg-node.yaml
