spec tests/fixtures/spec/bad-rate.yaml
