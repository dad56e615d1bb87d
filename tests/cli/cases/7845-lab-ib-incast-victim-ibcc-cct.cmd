sim scenarios/lab/ib-incast-victim-ibcc-cct.yaml
