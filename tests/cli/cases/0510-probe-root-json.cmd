probe --json --root tests/fixtures/sysfs/no-rdma
