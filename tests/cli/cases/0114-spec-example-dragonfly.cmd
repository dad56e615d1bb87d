spec examples/h200-dragonfly.yaml
