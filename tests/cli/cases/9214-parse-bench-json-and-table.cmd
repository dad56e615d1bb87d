parse --summary tests/fixtures/fabtune-bench/incast-3-ranks-shm-one-run-json.txt tests/fixtures/fabtune-bench/incast-3-ranks-shm-one-run.txt
