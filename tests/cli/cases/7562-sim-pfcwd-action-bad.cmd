sim tests/fixtures/sim/bad-pfcwd-action.yaml
