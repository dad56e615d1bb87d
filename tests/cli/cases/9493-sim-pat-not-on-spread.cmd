sim dgx-h100:2 --op all_gather --ranks 12 --placement spread -b 64K
