model dgx-h100:4 --nccl 2.21 -b 1K -e 1G -f 32
