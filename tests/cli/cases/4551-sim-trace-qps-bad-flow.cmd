sim scenarios/lab/incast-pfc-only.yaml --trace /dev/null --trace-links 1 --trace-qps 99999
