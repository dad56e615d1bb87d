spec tests/fixtures/spec/bad-missing.yaml
