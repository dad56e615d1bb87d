bench ib_send_bw --transport tcp --np 2 -s 64K node-b
