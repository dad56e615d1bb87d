sim scenarios/lab/incast-pfc-only.yaml --trace-qps 1
