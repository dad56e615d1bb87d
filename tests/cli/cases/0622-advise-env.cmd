advise --format env tests/fixtures/diag/roce-tc-mismatch-nccl.log tests/fixtures/diag/roce-tc-mismatch-qos.out
