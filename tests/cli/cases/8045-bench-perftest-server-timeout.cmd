bench ib_send_bw --transport tcp -s 64K -T 1s -p $FREE_PORT
