model gb200-nvl72:18 --nccl 2.25.1 -b 1M -e 4M
