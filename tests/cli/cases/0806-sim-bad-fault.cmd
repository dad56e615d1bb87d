sim tests/fixtures/sim/bad-fault.yaml
