parse --summary tests/fixtures/wild/nccl-tests/v100-8gpu-all-gather-4g-2020-no-hash-prefix-failed.txt
