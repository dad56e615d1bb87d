report tests/fixtures/archive/h100-current.json --vs tests/fixtures/archive/h100-baseline.json --expected tests/fixtures/archive/h100-model.json
