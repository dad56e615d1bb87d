model dgx-h100:2 -b 1M -e 8G -f 2
