bench all_reduce -T soon
