sim scenarios/lab/moe-alltoall-nic.yaml
