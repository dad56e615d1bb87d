doctor --root tests/fixtures/sysfs/gpu-node --no-bench --no-report
