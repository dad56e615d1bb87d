sim dgx-h100:4 --routing adaptive --op all_reduce --algo tree -b 1M --engine packet
