sim scenarios/lab/incast-pfc-dcqcn.yaml
