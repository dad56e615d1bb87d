sim dgx-h100:16 --op all_reduce --algo collnet_chain -b 1M -e 1M
