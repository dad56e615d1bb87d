model pcie-l40s:4 --op all_reduce --proto ll128 -b 8 -e 1G -f 32
