model dgx-b200:2 --nccl 2.18 -b 1M -e 4M
