model examples/dgx-h100-sharp.yaml --algo collnet --nccl 2.18 -b 16M -e 1G -f 2
