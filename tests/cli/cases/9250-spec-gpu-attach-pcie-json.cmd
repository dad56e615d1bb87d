spec tests/fixtures/spec/altra-h100-pcie.yaml --json
