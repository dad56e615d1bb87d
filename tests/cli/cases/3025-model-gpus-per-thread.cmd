model dgx-h100 -b 2K -e 1M -f 8 --gpus-per-thread 8
