bench all_reduce --transport shm --np 2 -n 0
