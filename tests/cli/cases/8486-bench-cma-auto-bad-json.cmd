bench pt2pt_bw --transport shm --np 2 --cma-min auto:64Q --json
