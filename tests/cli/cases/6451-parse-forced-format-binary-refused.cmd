parse --format ibstat tests/fixtures/ibstat/gzipped-by-mistake.txt.gz
