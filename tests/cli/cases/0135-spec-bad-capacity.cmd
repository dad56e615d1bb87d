spec tests/fixtures/spec/bad-capacity.yaml
