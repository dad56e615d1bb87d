bench ib_send_bw --transport tcp node-b node-c
