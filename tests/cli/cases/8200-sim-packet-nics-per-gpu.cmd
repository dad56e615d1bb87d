sim tests/fixtures/spec/nics-per-gpu-p5-like.yaml --op all_reduce -b 16M --algo ring --proto simple --engine packet
