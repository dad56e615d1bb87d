bench pt2pt_bw --transport shm --np 2 --window 0
