diagnose tests/fixtures/diagdir/switch tests/fixtures/ethtool-S/handmade-mlx5-roce-pfc-without-cc.txt --json
