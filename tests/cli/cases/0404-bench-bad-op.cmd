bench all_reduce -o avg
