doctor --root tests/fixtures/sysfs/no-rdma --no-bench --no-report --spec dgx-h100 --json
