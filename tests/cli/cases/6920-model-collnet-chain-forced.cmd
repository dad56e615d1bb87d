model tests/fixtures/spec/sharp-2x8.yaml --algo collnet_chain -b 1M -e 64M -f 8
