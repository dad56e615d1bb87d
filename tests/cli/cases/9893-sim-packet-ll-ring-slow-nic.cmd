sim tests/fixtures/sim/ll-ring-slow-nic.yaml --engine packet
