sim gb200-nvl72:18 --op all_reduce --algo ring --proto ll -b 1M -e 1G -f 4 --json
