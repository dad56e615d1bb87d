sim gb200-nvl72:36 --op all_reduce -b 16M --engine packet
