bench broadcast_perf --np 2 --transport shm -r 2
