sim tests/fixtures/spec/h100-16x1.yaml --op reduce_scatter -b 64K -e 16M -f 4
