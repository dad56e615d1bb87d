model aws-p5:4 --op all_gather --nccl 2.27 --explain 64M --json
