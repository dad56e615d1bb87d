spec tests/fixtures/spec/bad-duplicate-key.yaml
