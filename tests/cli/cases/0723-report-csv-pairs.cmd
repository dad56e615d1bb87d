report tests/fixtures/archive/fabric-doctor.json -f csv
