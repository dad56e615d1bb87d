sim scenarios/lab/incast-burst-victim-dcqcn-tuned.yaml
