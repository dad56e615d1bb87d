model dgx-h100:16 --algo collnet_chain -b 1M -e 1M
