probe --root tests/fixtures/sysfs/no-such-tree
