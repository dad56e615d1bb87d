sim scenarios/lab/permutation-ecmp-adaptive.yaml --counters $CASE_TMP/c
diagnose --spec scenarios/lab/permutation-ecmp-adaptive.yaml $CASE_TMP/c $CASE_TMP/1.out
