spec tests/fixtures/spec/bad-link-tech.yaml
