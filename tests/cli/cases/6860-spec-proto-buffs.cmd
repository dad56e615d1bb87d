spec tests/fixtures/spec/proto-buffs.yaml
