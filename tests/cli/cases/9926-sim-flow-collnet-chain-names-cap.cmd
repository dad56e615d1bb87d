sim tests/fixtures/spec/sharp-2x8.yaml --engine flow --op all_reduce --algo collnet_chain -b 1M -e 4M -f 4
