parse tests/fixtures/sysfs/README.md
