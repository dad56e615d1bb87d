spec examples/research-cluster.yaml
