sim tests/fixtures/spec/h100-16x1.yaml --op all_reduce --algo pat -b 64K
