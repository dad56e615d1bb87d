sim tests/fixtures/spec/sharp-2x8.yaml --op all_reduce --algo collnet_chain -b 64M --channels 4 --engine packet
