bench ib_write_bw -a -F
