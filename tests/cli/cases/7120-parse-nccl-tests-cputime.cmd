parse tests/fixtures/nccl-tests/handmade-all-reduce-cputime-c1-nccltests-2.19.txt
