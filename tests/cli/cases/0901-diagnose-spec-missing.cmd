diagnose tests/fixtures/ibstat/archwiki-mlx4-ddr-port2-down-polling.txt --spec cluster.yaml
