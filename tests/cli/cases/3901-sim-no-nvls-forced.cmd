sim gb200-nvl72:18 --op all_reduce -b 1G --algo nvls --no-nvls
