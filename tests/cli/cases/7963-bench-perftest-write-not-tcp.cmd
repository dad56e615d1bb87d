bench ib_write_bw --np 2 --transport tcp -s 64K
