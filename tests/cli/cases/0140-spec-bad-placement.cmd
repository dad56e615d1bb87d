spec tests/fixtures/spec/bad-placement.yaml
