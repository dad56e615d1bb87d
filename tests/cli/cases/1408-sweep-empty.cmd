sim --sweep tests/hostile/fixtures/empty.yaml
