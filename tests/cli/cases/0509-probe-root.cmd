probe --root tests/fixtures/sysfs/gpu-node
