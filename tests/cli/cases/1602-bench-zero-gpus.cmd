bench all_reduce -g 0
