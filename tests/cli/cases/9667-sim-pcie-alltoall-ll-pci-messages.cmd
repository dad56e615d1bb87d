sim pcie-l40s:1 --op alltoall --proto ll -b 8K -e 256K -f 4
