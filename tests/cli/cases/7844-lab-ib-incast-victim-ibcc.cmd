sim scenarios/lab/ib-incast-victim-ibcc.yaml
