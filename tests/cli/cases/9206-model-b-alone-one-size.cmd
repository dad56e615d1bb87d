model dgx-b200:4 -b 512M
