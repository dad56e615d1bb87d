model dgx-h100:4 --op all_reduce -b 1G --channels 18446744073709551615
