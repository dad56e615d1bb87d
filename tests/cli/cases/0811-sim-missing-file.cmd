sim tests/fixtures/sim/no-such.yaml
