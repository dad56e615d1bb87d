model dgx-h100:64 --ppn 1 --op all_gather -b 1K -e 1G -f 32
