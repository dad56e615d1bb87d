model gb200-nvl72:18 --gpus 72 --nccl 2.26 --no-nvls -b 512M -e 8G
