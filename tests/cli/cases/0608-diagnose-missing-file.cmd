diagnose tests/fixtures/diag/no-such-file.txt
