sim pcie-l40s:1 --op all_reduce -b 8K -e 64K -f 8 --algo ring --proto ll --engine packet
