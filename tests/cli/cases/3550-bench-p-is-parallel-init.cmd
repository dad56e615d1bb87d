bench all_reduce -p 2
