topo examples/h200-dragonfly.yaml --json
