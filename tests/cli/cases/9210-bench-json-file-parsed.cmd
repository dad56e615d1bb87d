bench pairs --np 3 --transport shm -b 64K -n 2 --threshold 0.000001 --no-retest --json-file $CASE_TMP/pairs.json
parse --summary $CASE_TMP/1.out $CASE_TMP/pairs.json
