diagnose --json --root tests/fixtures/sysfs/no-rdma
