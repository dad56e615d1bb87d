model aws-p5:4 --tuner-plugin nccl-default -b 1G -e 1G
