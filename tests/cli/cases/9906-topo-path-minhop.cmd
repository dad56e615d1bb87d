topo tests/fixtures/spec/h100-15x1-minhop.yaml --path n5.gpu0,n10.gpu0
