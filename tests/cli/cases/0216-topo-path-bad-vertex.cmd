topo dgx-h100:2 --path n0.gpu0,n2.gpu0
