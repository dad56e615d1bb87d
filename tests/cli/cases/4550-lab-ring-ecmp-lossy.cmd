sim scenarios/lab/ring-ecmp-lossy.yaml
