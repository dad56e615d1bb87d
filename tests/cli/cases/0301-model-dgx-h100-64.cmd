model dgx-h100:64 -b 1K -e 1G -f 4
