bench all_reduce --np 2 --transport shm -b 1K -e 4K -f 4 -n 2 -w 1 --json
parse --summary $CASE_TMP/1.out
