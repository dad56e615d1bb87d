model dgx-b200:2 --op all_reduce --algo nvls_tree --nccl 2.30.2 --explain 1G
