bench all_gather_perf --table-format 2.18 -t 2 --transport shm -b 1K -e 4K -f 4 -n 2 -w 1
parse --summary $CASE_TMP/1.out
