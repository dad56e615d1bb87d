diagnose tests/fixtures/diagdir-empty
