sim tests/fixtures/sim/packet-bursts.yaml
