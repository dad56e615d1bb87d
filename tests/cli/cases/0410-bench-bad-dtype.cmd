bench all_reduce -d float8
