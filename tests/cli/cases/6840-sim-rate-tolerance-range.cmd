sim dgx-h100:2 --op alltoall -b 1M --rate-tolerance 0.2
