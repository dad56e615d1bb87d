spec examples/custom-node.yaml
