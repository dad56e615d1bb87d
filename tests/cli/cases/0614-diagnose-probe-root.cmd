diagnose --root tests/fixtures/sysfs/gpu-node
