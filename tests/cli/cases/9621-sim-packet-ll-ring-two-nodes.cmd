sim dgx-h100:2 --op all_reduce -b 8K -e 4M -f 8 --algo ring --proto ll --engine packet
