bench hypercube_perf --np 3 --transport shm
