sim tests/fixtures/spec/h100-16x1.yaml --op all_gather --algo pat --proto ll -b 64K
