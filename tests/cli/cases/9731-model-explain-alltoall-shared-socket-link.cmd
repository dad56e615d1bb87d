model pcie-l40s:1 --op alltoall --explain 64M
