sim aws-p5:2 --op broadcast -b 4M -e 4M --engine packet
