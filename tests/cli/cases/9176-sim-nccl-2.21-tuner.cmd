sim dgx-h100:2 --op all_reduce -b 64M -e 1G -f 16 --nccl 2.21
