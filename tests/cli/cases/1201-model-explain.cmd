model dgx-h100:4 --explain 64M
