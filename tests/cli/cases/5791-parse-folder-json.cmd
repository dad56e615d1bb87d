parse --summary tests/fixtures/diagdir/switch --json
