sim dgx-h100:2 --op all_reduce --fabric-scale -1
