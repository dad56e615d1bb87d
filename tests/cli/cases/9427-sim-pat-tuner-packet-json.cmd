sim tests/fixtures/spec/h100-16x1.yaml --op all_gather -b 64K -e 1M -f 16 --engine packet --json
