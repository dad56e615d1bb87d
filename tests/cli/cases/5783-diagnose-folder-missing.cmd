diagnose tests/fixtures/no-such-folder
