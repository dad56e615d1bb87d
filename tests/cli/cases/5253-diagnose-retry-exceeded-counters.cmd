diagnose tests/fixtures/retry-lab/nic-down-nccl-log.txt tests/fixtures/retry-lab/nic-down-perfquery-x.n1.nic3.txt tests/fixtures/retry-lab/nic-down-perfquery-x.leaf3.p2.txt
