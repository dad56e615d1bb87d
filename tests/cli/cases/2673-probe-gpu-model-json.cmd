probe --root tests/fixtures/sysfs/a10g-vm --json
