topo
