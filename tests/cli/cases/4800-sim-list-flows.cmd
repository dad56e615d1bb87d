sim scenarios/lab/incast-pfc-dcqcn-tuned.yaml --list-flows 4
