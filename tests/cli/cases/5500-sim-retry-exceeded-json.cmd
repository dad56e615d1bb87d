sim tests/fixtures/sim/nic-down-retry-cnt.yaml --json
