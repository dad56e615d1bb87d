parse tests/fixtures/diagdir-empty
