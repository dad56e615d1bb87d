sim tests/fixtures/sim/spec-file.yaml --json
