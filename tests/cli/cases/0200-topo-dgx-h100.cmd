topo dgx-h100
