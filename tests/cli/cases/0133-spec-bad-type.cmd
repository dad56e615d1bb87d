spec tests/fixtures/spec/bad-type.yaml
