spec tests/fixtures/spec/nvlstree-max.yaml
