model dgx-h100:4 --nodes 2 --op reduce_scatter --algo halving_doubling -b 1M -e 1G -f 32
