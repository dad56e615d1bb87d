sim tests/fixtures/sim/packet-prio-arb.yaml --json
