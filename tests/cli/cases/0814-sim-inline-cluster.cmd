sim tests/fixtures/sim/inline-cluster.yaml
