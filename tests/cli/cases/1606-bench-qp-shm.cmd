bench pt2pt_bw -q 2 --transport shm
