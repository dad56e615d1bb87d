topo dgx-h100:2 --fromat=dot
