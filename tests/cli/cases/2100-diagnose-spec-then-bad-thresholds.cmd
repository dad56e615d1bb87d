diagnose tests/fixtures/ibstat/archwiki-mlx4-ddr-port2-down-polling.txt --spec dgx-h100 --thresholds tests/fixtures/diag/no-such-thresholds.yaml
