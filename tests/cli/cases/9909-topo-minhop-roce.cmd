topo examples/l40s-roce.yaml --path n0.gpu0,n1.gpu0 --routing minhop
