report tests/fixtures/archive/h100-current.json --format pdf
