sim --sweep tests/fixtures/sim/bad-sweep.yaml
