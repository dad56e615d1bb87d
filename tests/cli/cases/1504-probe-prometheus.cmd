probe --root tests/fixtures/sysfs/gpu-node --no-tools --format prometheus
