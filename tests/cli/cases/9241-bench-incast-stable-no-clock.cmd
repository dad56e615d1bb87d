bench incast --np 3 --transport tcp -b 64K -n 2
parse --summary $CASE_TMP/1.out
