sim tests/fixtures/sim/bad-placement-twice.yaml
