bench all_reduce_perf -t shm -b 1K
