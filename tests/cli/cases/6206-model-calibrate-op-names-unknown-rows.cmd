model dgx-h100 --calibrate tests/fixtures/wild/nccl-tests/h20-8gpu-redop-none-header-line-cut-away.txt --op alltoall --gpus 8
