sim gcp-a3-mega:2 --op all_reduce -b 64M -e 64M --engine packet
