archive import tests/fixtures/archive/h100-baseline.json tests/fixtures/archive/h100-current.json
