bench all_reduce --np 2 --transport shm -b 64K -n 2 -w 1
parse --summary $CASE_TMP/1.out
