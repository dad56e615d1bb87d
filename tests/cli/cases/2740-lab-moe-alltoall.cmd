sim scenarios/lab/moe-alltoall.yaml
