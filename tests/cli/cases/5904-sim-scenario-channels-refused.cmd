sim scenarios/lab/incast-pfc-dcqcn.yaml --channels 4
