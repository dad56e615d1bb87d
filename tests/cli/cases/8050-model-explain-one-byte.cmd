model dgx-h100:1 --explain 1
