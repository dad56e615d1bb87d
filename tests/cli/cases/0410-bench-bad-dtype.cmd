bench all_reduce -d half
