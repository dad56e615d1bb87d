model tests/fixtures/spec/p5-nvlstree-64k.yaml --op all_reduce --algo nvls_tree --proto simple --nccl 2.27 --explain 2G
