spec examples/mixed-shapes.yaml
