spec examples/b200-multiplane.yaml
