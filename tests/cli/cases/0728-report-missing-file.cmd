report tests/fixtures/archive/missing.json
