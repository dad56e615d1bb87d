model aws-p5:4 --op all_reduce --algo nvls_tree --proto simple --nccl 2.27 --explain 2G
