model tests/fixtures/spec/h100-512-3tier-minhop.yaml --op allreduce -b 256M -e 256M
