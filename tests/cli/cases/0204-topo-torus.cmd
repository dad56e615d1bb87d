topo tests/fixtures/topo/torus.yaml
