archive show tests/fixtures/archive/h100-current.json
