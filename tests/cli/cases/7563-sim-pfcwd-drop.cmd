sim tests/fixtures/sim/pfcwd-drop.yaml
