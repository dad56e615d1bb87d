sim dgx-h100:4 --op alltoall -b 16M --routing adaptive --qps 2
