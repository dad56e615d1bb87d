model aws-p5:2 --op sendrecv --nccl 2.27 --explain 64M --json
