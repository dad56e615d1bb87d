model aws-p5:4 --nccl 2.27 --tuner-plugin aws-ofi-nccl -b 32M -e 8G
