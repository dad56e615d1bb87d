sim tests/fixtures/sim/tcpx-lossy-plain.yaml
