model gb200-nvl72:72 --op all_reduce --algo nvls_tree --nccl 2.29 --explain 1G
