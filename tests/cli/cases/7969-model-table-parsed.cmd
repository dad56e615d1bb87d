model dgx-h100:16 --op alltoall -b 1M -e 8M -f 8
parse --json $CASE_TMP/1.out
