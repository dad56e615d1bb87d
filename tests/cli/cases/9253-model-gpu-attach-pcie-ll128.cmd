model tests/fixtures/spec/altra-h100-pcie.yaml --op allreduce --nccl 2.25 --explain 1M
