parse --summary tests/fixtures/diagdir
