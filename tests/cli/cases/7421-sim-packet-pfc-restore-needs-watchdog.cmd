sim tests/fixtures/sim/pfc-restore-no-watchdog.yaml
