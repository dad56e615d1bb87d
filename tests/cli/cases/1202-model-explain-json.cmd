model dgx-h100:2 --op alltoall --explain 8M --json
