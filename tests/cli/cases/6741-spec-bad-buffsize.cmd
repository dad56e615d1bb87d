spec tests/fixtures/spec/bad-buffsize.yaml
