spec tests/fixtures/spec/bad-range.yaml
