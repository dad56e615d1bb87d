topo tests/fixtures/topo/torus.yaml --path n0.gpu0,n23.gpu7
