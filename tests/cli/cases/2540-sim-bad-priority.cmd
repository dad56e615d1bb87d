sim tests/fixtures/sim/bad-priority.yaml
