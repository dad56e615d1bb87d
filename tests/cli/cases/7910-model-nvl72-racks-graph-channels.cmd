model gb200-nvl72:36 --nccl 2.26 --no-nvls --op broadcast --algo ring --proto simple --explain 64M
