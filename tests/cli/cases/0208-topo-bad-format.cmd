topo dgx-h100 --format xml
