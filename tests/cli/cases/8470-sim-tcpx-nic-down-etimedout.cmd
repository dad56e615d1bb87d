sim tests/fixtures/sim/tcpx-nic-down.yaml
