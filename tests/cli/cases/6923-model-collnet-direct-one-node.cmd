model tests/fixtures/spec/sharp-2x8.yaml --nodes 1 --algo CollNetDirect -b 1M -e 1M
