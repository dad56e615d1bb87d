model gb200-nvl72:72 --op all_reduce --algo nvls_tree --explain 1G
