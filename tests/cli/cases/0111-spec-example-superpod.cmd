spec examples/a100-superpod.yaml
