sim tests/fixtures/sim/packet-bursts-jitter.yaml
