topo dgx-h100:64 --path n0.gpu0,n40.gpu5
