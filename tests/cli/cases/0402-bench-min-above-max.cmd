bench -b 1M -e 1K
