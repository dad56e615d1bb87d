sim scenarios/lab/permutation-ecmp-adaptive.yaml
