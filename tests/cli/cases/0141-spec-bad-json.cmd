spec tests/fixtures/spec/bad-json.json
