sim tests/fixtures/sim/bad-jitter-above-off.yaml
