bench all_reduce --np 2 --transport shm --shm-max 12Q
