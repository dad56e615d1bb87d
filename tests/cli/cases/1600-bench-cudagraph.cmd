bench all_reduce -G 1
