sim scenarios/lab/ib-incast-ibcc.yaml --counters $CASE_TMP/c
diagnose $CASE_TMP/c $CASE_TMP/1.out
