sim scenarios/lab/incast-pfc-dcqcn.yaml --algo ring --json
