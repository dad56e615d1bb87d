sim scenarios/lab/incast-burst-victim-pfc-only.yaml
