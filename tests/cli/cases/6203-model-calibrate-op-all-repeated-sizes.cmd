model dgx-h100:2 --calibrate tests/fixtures/wild/nccl-tests/2x8-all-reduce-op-all-max-min-rows-cut.txt
