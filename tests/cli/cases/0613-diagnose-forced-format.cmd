diagnose --format perfquery tests/fixtures/ibstat/archwiki-mlx4-ddr-port2-down-polling.txt
