diagnose tests/fixtures/diag/socket-fallback-nccl.log tests/fixtures/diag/socket-fallback-ibstat.out tests/fixtures/diag/socket-fallback-allreduce.out
