model dgx-h100:2 --op sendrecv --json -b 1K -e 1G -f 1024
