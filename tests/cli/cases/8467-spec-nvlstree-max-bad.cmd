spec tests/fixtures/spec/nvlstree-max-bad.yaml
