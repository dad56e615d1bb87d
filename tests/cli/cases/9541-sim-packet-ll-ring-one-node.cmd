sim dgx-h100:1 --op all_reduce -b 8K -e 4M -f 8 --algo ring --proto ll --engine packet
