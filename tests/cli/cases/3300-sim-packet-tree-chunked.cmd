sim dgx-h100:2 --op all_reduce -b 4M --algo tree --engine packet
