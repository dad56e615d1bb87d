sim tests/fixtures/sim/tiny.yaml --json
