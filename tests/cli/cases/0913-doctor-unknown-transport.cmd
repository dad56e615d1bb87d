doctor --root tests/fixtures/sysfs/gpu-node --transports foo --no-report
