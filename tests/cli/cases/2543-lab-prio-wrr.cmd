sim scenarios/lab/prio-wrr.yaml
