sim tests/fixtures/sim/nic-miss-above-rate.yaml --engine packet
