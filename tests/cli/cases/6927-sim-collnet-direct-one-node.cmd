sim tests/fixtures/spec/sharp-2x8.yaml --ranks 8 --op all_reduce --algo collnet_direct -b 1M -e 1M
