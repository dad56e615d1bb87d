sim tests/fixtures/sim/bad-proto.yaml
