model dgx-h100 -b 1G -e 8G -f 8
