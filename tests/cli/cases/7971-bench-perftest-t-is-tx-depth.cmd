bench ib_send_bw --np 2 --transport shm -t 0
