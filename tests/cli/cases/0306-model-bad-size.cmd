model dgx-h100 -b 12Q
