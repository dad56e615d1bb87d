sim dgx-h100:2
