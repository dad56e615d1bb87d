bench bisection --np 2 --transport shm -b 64K -n 2 --rounds 2 --json --json-file $CASE_TMP/b.json
parse --summary $CASE_TMP/1.out $CASE_TMP/b.json
