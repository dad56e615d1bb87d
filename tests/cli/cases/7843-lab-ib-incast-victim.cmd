sim scenarios/lab/ib-incast-victim.yaml
