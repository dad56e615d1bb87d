bench alltoallv_perf_mpi -b 1M
