sim --sweep tests/fixtures/sim/sweep-tiny.yaml
