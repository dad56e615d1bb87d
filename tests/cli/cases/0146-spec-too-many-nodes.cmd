spec dgx-h100:10000
