sim tests/fixtures/sim/nic-cache-adaptive.yaml --engine packet
