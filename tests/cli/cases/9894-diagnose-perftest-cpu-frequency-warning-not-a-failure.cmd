diagnose tests/fixtures/perftest/roce-ib-read-bw-gbits-cpu-frequency-conflict-warnings.txt
