bench all_reduce --np 2 -t shm --shm-max 12Q
