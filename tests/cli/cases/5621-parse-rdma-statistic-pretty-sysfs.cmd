parse tests/fixtures/rdma-statistic/rdma-p-pretty-layout-mlx5_1-packet-seq-err.txt tests/fixtures/rdma-statistic/sysfs-hw-counters-grep-mlx5_3-ack-timeouts.txt --summary
