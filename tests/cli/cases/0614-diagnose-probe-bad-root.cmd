diagnose --root tests/fixtures/sysfs/no-such-tree
