sim tests/fixtures/sim/srd-dead-nic.yaml --engine packet
