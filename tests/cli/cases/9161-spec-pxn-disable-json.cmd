spec tests/fixtures/spec/pxn-off-rail.yaml --json
