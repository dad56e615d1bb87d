sim tests/fixtures/sim/pfc-xon-above-xoff.yaml --engine packet
