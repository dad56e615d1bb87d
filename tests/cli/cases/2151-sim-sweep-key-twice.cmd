sim --sweep tests/fixtures/sim/sweep-twice.yaml
