parse tests/fixtures/wild/perftest/send-bw-run-infinitely-rows-without-header-two-clients.txt
