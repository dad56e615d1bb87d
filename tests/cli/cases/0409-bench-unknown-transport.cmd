bench --transport carrier -b 1K
