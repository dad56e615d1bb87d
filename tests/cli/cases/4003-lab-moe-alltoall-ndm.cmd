sim scenarios/lab/moe-alltoall-ndm.yaml
