spec dgx-h100:0
