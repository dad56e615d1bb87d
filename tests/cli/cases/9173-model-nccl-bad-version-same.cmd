model dgx-h100:2 --nccl 3.1
