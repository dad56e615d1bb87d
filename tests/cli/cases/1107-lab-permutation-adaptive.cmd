sim scenarios/lab/permutation-ecmp-adaptive.yaml --routing adaptive
