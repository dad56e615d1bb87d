sim gb200-nvl72:18 --op all_reduce -b 1M --nccl 2.24
