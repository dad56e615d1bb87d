archive compare tests/fixtures/archive/h100-current.json --vs tests/fixtures/archive/fabric-doctor.json
