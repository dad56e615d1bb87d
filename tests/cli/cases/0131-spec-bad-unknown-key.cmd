spec tests/fixtures/spec/bad-unknown-key.yaml
