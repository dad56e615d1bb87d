spec examples/l40s-roce.yaml
