sim tests/fixtures/sim/bad-retry-cnt.yaml
