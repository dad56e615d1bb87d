sim tests/fixtures/sim/bad-cct.yaml
