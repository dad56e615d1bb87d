sim tests/fixtures/spec/no-nvls.yaml --op all_reduce -b 1G --algo nvls
