sim --sweep tests/hostile/fixtures/long-line.txt
