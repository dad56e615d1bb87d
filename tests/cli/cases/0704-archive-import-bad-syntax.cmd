archive import tests/fixtures/archive/bad-syntax.json
