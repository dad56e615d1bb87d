sim tests/fixtures/sim/pxn-job-split.yaml
