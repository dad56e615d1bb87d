model dgx-h100:2 --op sendrecv --explain 1K
