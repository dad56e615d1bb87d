bench pt2pt_bw -G 2
