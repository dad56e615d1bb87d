parse tests/fixtures/nccl-tests/coreweave-h100-8x8-all-reduce-collnetchain-excerpt.txt
