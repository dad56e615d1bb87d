model dgx-h100:2 -b 64K -e 256K
