model pcie-l40s:1 --op alltoall -b 64M --explain 64M --json
