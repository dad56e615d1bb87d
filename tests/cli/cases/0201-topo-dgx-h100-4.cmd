topo dgx-h100:4
