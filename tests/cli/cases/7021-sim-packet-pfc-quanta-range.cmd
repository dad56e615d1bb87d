sim tests/fixtures/sim/pfc-quanta-bad.yaml
