bench ib_write_bw -d mlx5_0 -a -F server1
