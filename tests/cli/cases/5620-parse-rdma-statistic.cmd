parse tests/fixtures/rdma-statistic/fabtune-sim-ib-nic-down-mlx5_3-retries-exceeded.txt
