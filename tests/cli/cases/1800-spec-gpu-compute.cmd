spec tests/fixtures/spec/gpu-compute.yaml
