sim gb200-nvl72:36 --op allreduce --algo ring -b 256M --nccl 2.27.7
