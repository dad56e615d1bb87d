topo tests/fixtures/topo/bad-rail-pod.yaml
