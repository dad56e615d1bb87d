sim scenarios/lab/ib-incast-ibcc.yaml
