spec dgx-h100:64 --json
