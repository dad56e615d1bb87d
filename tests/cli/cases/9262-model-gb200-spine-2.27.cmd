model gb200-nvl72:36 --op alltoall -b 64M --nccl 2.27.7 --explain 64M
