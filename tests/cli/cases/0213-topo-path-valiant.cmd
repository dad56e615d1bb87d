topo tests/fixtures/topo/dragonfly.yaml --path n0.gpu0,n9.nic0 --routing valiant --qp 3
