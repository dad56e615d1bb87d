parse --json tests/fixtures/fabtune-bench/pairs-3-ranks-shm-b1k-e64k.txt
