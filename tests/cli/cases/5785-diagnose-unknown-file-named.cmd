diagnose tests/fixtures/diagdir/README
