sim tests/fixtures/sim/inline-bad.yaml
