sim pcie-l40s:2 --op alltoall --proto ll -b 8K -e 512K -f 8 --engine packet
