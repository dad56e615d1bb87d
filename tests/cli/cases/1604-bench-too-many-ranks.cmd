bench all_reduce --np 200 -g 2
