spec tests/fixtures/spec/gpu-attach-bad.yaml
