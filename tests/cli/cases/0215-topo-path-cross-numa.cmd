topo dgx-h100 --path n0.gpu0,n0.nic7
