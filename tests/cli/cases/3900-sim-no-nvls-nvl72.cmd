sim gb200-nvl72:36 --op all_reduce -b 64M -e 1G -f 4 --no-nvls
