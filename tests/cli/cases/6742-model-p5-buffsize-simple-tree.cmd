model aws-p5:4 --op all_reduce --algo tree --proto simple --nccl 2.27 --explain 16M
