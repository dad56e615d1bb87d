model scenarios/lab/ring-ecmp-dcqcn.yaml
