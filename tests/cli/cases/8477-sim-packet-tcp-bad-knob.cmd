sim tests/fixtures/sim/tcp-bad-knob.yaml
