sim scenarios/lab/torus-deadlock.yaml --json
