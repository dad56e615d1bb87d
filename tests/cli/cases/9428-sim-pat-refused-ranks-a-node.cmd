sim dgx-h100:2 --op all_gather --algo pat -b 64K
