model aws-p5:8 --nccl 2.27 --tuner-plugin aws-ofi-nccl --explain 64M
