sim aws-p5:2 --op all_gather -b 16M -e 16M --engine packet --json
