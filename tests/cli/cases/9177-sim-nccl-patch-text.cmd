sim dgx-h100:2 --op all_reduce --algo tree --proto simple -b 1G --nccl 2.18.6
