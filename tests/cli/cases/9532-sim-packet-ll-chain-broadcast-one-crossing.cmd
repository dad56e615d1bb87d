sim dgx-a100:2 --op broadcast -b 64K --engine packet
