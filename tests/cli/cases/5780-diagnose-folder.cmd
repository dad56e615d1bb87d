diagnose tests/fixtures/diagdir
