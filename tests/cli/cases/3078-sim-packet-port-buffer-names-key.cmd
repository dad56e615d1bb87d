sim tests/fixtures/sim/small-port-buffer.yaml
