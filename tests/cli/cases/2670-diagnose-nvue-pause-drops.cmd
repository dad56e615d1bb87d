diagnose tests/fixtures/nvue/handmade-leaf07-swp7-pfc-tx-prio3-queue-drops.txt
