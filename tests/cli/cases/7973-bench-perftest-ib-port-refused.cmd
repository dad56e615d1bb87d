bench ib_write_bw -d mlx5_0 -i 1 -a -F
