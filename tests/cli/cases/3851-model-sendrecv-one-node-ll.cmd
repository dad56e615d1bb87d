model dgx-h100 --op sendrecv --explain 1K
