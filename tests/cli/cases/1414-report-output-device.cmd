report tests/fixtures/archive/h100-current.json -o /dev/full
