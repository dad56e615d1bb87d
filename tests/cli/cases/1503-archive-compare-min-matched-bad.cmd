archive compare tests/fixtures/archive/h100-current.json --vs tests/fixtures/archive/h100-baseline.json --min-matched 120%
