topo dgx-h100 --format dot
