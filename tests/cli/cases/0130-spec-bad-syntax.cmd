spec tests/fixtures/spec/bad-syntax.yaml
