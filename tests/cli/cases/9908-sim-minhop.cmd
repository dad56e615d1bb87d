sim tests/fixtures/spec/h100-15x1-minhop.yaml --op alltoall -b 16M
