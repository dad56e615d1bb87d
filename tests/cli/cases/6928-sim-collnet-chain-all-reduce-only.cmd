sim tests/fixtures/spec/sharp-2x8.yaml --op all_gather --algo collnet_chain -b 1M -e 1M
