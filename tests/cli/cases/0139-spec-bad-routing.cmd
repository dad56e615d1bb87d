spec tests/fixtures/spec/bad-routing.yaml
