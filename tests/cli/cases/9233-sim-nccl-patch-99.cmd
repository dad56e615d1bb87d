sim dgx-h100:2 --op all_reduce --nccl 2.30.99
