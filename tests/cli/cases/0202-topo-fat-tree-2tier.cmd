topo tests/fixtures/topo/fat-tree-2tier.yaml
