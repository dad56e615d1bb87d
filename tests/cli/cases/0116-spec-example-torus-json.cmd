spec examples/torus.json --json
