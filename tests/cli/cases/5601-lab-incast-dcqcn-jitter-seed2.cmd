sim scenarios/lab/incast-pfc-dcqcn-jitter.yaml --seed 2
