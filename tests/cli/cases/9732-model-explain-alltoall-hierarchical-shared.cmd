model pcie-l40s:2 --op alltoall --algo hierarchical --explain 64M
