bench -t carrier -b 1K
