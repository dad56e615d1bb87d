bench pt2pt_lat --np 2 --transport shm -b 8 -e 64 -f 8 -n 200
parse --summary $CASE_TMP/1.out
