sim tests/fixtures/sim/bad-size.yaml
