sim tests/fixtures/sim/tiny.yaml --engine packet --json
