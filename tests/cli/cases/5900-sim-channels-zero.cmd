sim dgx-h100:4 --op all_reduce -b 1G --algo ring --proto simple --channels 0
