parse --format ethtool-S tests/fixtures/ethtool-S/handmade-mlx5-roce-pfc-prio3-cnp.txt
