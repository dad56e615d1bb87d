bench all_reduce -o xor
