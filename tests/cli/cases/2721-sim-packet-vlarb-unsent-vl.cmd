sim tests/fixtures/sim/bad-vlarb.yaml
