sim tests/fixtures/sim/collnet-slow-nic.yaml --engine flow
