sim scenarios/lab/incast-pfc-only.yaml --json
