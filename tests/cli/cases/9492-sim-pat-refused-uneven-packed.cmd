sim dgx-h100:2 --op all_gather --ranks 12 --algo pat -b 64K
