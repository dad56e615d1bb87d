topo dgx-h100:4 --json
