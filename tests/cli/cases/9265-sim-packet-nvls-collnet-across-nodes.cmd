sim tests/fixtures/spec/sharp-2x8.yaml --op all_reduce -b 64M --algo nvls --engine packet
