model dgx-h100:8 --nodes 100000000
