model dgx-h100 --gpus-per-thread 32
