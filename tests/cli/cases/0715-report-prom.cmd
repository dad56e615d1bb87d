report tests/fixtures/archive/fabric-doctor.json --format prom
