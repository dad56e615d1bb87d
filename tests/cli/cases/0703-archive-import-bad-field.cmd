archive import tests/fixtures/archive/bad-field.json
