sim dgx-h100:2 --op all_reduce -b 1M -e 16M -f 4
