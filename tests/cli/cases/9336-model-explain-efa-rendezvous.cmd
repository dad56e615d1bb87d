model aws-p5:4 --op alltoall --nccl 2.27 --explain 1G
