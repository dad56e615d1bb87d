bench all_reduce -D 1
