model dgx-h100:2 --explain 0
