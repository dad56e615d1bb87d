spec dgx-h100
