model dgx-h100 --calibrate tests/fixtures/nccl-tests/handmade-old-format-no-root-interleaved-broken-rows.txt
