sim tests/fixtures/sim/packet-ring-qps.yaml --json
