model examples/dgx-h100-sharp.yaml --nodes 4 --nccl 2.21 --explain 1G
