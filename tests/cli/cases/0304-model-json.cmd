model dgx-a100 --json -b 1M -e 64M -f 8
