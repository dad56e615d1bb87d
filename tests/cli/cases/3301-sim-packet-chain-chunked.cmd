sim dgx-h100:2 --op broadcast -b 4M --engine packet
