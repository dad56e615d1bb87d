sim dgx-b200 --op all_reduce --algo nvls -b 1M -e 64M -f 4
