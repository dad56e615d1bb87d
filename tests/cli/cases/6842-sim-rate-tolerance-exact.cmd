sim dgx-h100:4 --op alltoall -b 16M --algo direct --routing ecmp --rate-tolerance 0
