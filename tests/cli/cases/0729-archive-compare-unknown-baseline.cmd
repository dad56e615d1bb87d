archive compare tests/fixtures/archive/h100-current.json --vs nightly
