bench pt2pt_lat --np 2 --transport tcp -b 8 -e 64 -f 8 -n 100 --json
parse --summary $CASE_TMP/1.out
