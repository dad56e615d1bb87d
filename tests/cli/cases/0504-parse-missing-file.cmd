parse tests/fixtures/ibstat/no-such-file.txt
