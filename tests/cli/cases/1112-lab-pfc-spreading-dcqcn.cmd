sim scenarios/lab/pfc-spreading-dcqcn.yaml
