sim tests/fixtures/sim/tcpx-lossy.yaml --json
