sim scenarios/lab/ib-incast-xmitwait.yaml
