bench --rank 3 --nranks 2
