sim dgx-h100:2 --op all_reduce --algo nvls_tree -b 16M -e 1G -f 4
