bench all_reduce --spin sometimes
