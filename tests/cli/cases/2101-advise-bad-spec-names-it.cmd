advise --root tests/fixtures/sysfs/gpu-node --spec no-such-spec
