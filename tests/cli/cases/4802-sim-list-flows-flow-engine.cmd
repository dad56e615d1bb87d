sim scenarios/lab/incast-pfc-dcqcn-tuned.yaml --list-flows 2 --engine flow
