probe --interval -1s --root tests/fixtures/sysfs/no-rdma
