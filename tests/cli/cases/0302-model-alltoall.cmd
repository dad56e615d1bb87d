model dgx-h100:16 --op alltoall -b 1M -e 1G -f 8
