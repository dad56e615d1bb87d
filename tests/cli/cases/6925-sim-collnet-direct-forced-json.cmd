sim tests/fixtures/spec/sharp-2x8.yaml --op all_reduce --algo collnet_direct -b 64M -e 64M --json
