sim tests/fixtures/sim/bad-packet.yaml
