model tests/fixtures/spec/nvlstree-max.yaml --explain 256M --algo nvls_tree --proto simple --json
