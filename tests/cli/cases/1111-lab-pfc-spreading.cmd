sim scenarios/lab/pfc-spreading.yaml
