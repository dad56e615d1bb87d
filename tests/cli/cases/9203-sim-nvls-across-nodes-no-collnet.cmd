sim dgx-h100:2 --op all_reduce -b 1G --algo nvls --engine packet
