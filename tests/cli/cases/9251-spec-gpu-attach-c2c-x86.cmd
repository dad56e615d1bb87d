spec tests/fixtures/spec/gpu-attach-c2c-x86.yaml
