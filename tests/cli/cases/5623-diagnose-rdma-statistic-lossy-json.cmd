diagnose tests/fixtures/rdma-statistic/fabtune-sim-roce-lossy-mlx5_2-out-of-sequence.txt tests/fixtures/rdma-statistic/rdma-p-pretty-layout-mlx5_1-packet-seq-err.txt --json
