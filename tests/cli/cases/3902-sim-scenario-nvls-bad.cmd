sim tests/fixtures/sim/bad-nvls.yaml
