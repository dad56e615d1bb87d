archive import tests/hostile/fixtures/export-v99.json
