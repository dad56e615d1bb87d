diagnose tests/fixtures/diagdir --json
