model tests/fixtures/spec/nics-per-gpu-p5-like.yaml --explain 1G --ppn 2
