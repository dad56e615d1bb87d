spec tests/fixtures/spec/pxn-bad.yaml
