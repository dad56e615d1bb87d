sim tests/fixtures/spec/sharp-2x8.yaml --op all_reduce --algo collnet_chain -b 1M -e 64M -f 8
