parse --summary tests/fixtures/nvue/reference-swp1-counters-qos-pfc-egress-queue-all-zero.txt
