sim tests/fixtures/sim/bad-wrr-weights.yaml
