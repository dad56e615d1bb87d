bench ib_send_bw --np 2 --transport shm -s 64K -n 50 -F
parse --summary $CASE_TMP/1.out
