spec tests/fixtures/spec/proto-buffs-bad.yaml
