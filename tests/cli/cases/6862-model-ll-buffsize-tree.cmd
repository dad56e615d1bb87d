model tests/fixtures/spec/proto-buffs.yaml --op all_reduce --algo tree --proto ll --explain 4M
