sim tests/fixtures/spec/h100-16x1.yaml --op all_gather --algo pat -b 64K --nccl 2.18.3
