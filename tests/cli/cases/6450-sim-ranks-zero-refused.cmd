sim dgx-h100:2 --op all_reduce --ranks 0
