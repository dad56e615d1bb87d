diagnose tests/fixtures/xid/dmesg-mlx5-health-cmd-timeout-power-module-link-format.txt
