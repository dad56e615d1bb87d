diagnose --json tests/fixtures/pytorch-trace/hta-rank0-of-128-sendrecv-exposed-excerpt.txt tests/fixtures/pytorch-trace/hta-rank0-of-128-sendrecv-hidden-excerpt.txt
