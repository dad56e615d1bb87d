sim dgx-h100:2 --op all_reduce --nccl 3.1
