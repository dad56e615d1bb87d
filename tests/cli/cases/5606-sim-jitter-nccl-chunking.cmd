sim tests/fixtures/sim/bad-jitter-chunking.yaml
