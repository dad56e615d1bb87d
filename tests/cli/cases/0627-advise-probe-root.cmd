advise --root tests/fixtures/sysfs/gpu-node
