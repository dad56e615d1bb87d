sim tests/fixtures/sim/packet-prio-arb-wrr.yaml --json
