bench pt2pt_bw -a -b 1K
