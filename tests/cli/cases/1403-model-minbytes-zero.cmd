model dgx-h100:2 -b 0
