report tests/fixtures/archive/h100-current.json --vs tests/fixtures/archive/h100-baseline.json --threshold 5
