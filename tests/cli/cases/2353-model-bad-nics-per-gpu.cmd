model tests/fixtures/spec/bad-nics-per-gpu.yaml
