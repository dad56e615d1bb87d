bench all_reduce -t shm --np 2 -n 0
