sim scenarios/lab/incast-pfc-dcqcn-jitter.yaml --list-flows 15
