model dgx-h100:2 --op alltoall --algo hierarchical -b 16K -e 1M -f 8
