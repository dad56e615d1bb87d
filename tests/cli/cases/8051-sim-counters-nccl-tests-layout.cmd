sim tests/fixtures/sim/tiny.yaml --engine packet --counters $CASE_TMP/c
parse $CASE_TMP/c/nccl-tests.1.alltoall_perf.txt --json
