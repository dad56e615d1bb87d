sim gb200-nvl72:72 --op all_gather -b 4G
