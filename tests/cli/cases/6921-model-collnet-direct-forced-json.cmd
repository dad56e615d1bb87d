model tests/fixtures/spec/sharp-2x8.yaml --algo collnet_direct -b 256M -e 1G -f 4 --json
