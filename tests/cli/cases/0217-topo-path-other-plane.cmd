topo examples/b200-multiplane.yaml --path n0.nic0,n1.nic1
