sim tests/fixtures/sim/pfc-quanta-100.yaml
