model dgx-h100
