spec tests/fixtures/spec/bad-gpu-compute.yaml
