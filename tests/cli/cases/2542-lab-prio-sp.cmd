sim scenarios/lab/prio-sp.yaml
