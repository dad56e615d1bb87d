sim scenarios/lab/incast-pfc-dcqcn-tuned.yaml
