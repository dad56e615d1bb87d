sim tests/fixtures/sim/packet-bursts-jitter-source.yaml --json
