bench all_reduce_perf -b 8 node-b
