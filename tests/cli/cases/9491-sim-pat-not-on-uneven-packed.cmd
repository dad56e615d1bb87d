sim dgx-h100:2 --op all_gather --ranks 12 -b 64K -e 1M -f 4
