sim scenarios/lab/incast-pfc-only.yaml --trace /dev/null --trace-links 9999999
