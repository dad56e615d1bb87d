model dgx-h100 --calibrate tests/fixtures/wild/nccl-tests/2node-4gpu-zero-count-rows-no-command.txt
