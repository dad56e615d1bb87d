sim gb200-nvl72:36 --op alltoall -b 64M --nccl 2.28.3
