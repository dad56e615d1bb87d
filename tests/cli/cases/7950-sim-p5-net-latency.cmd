sim aws-p5:4 --op all_reduce -b 4M -e 16M
