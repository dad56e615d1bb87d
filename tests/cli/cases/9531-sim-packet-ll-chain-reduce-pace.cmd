sim dgx-a100:2 --op reduce -b 64K --engine packet
