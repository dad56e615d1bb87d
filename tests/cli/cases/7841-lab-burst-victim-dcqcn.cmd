sim scenarios/lab/incast-burst-victim-dcqcn.yaml
