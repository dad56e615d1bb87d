topo dgx-h100:4 --path n0.gpu3,n2.gpu3 --routing ecmp --qp 7 --json
