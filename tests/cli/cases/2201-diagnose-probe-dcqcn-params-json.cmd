diagnose --json --root tests/fixtures/sysfs/roce-cc
