bench all_reduce --bind socket
