sim tests/fixtures/sim/packet-incast.yaml --json
