spec tests/fixtures/spec/no-such-file.yaml
