bench pt2pt_bw -t shm --np 2 --window 0
