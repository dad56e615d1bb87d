model tests/fixtures/spec/p5-buffsize-4m.yaml --op all_reduce --algo tree --proto simple --nccl 2.27 --explain 16M
