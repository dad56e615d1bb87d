doctor --root tests/fixtures/sysfs/no-rdma --no-bench --no-save --no-report --baseline nightly
