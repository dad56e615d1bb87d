model dgx-h100:2 --op all_reduce -b 1G -e 1G --channels 1
