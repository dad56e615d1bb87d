spec tests/hostile/fixtures/long-line.txt
