sim tests/fixtures/sim/pfc-refresh-bad.yaml
