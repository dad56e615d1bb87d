sim scenarios/lab/nic-down-retry.yaml
