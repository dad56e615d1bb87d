sim tests/fixtures/sim/pfcwd-alert.yaml
