sim tests/fixtures/sim/bad-chunking.yaml
