topo tests/fixtures/topo/dragonfly.yaml
