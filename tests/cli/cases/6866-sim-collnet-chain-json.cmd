sim tests/fixtures/spec/sharp-2x8.yaml --op all_reduce --algo collnet -b 16M -e 64M -f 4 --json
