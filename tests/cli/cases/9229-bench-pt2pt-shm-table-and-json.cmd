bench pt2pt_bw --np 2 --transport shm -b 4K -e 64K -f 16 -n 20 --json-file $CASE_TMP/d.json
parse --summary $CASE_TMP/1.out $CASE_TMP/d.json
