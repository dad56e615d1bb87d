sim scenarios/lab/torus-pfc-watchdog.yaml
