spec tests/fixtures/spec/bad-preset.yaml
