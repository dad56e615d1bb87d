model dgx-h100:2 --nccl 2.17
