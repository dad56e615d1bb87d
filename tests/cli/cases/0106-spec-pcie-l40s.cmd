spec pcie-l40s:16
