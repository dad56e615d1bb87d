bench ib_send_bw --transport tcp -p 20000 --rank 0 --nranks 2 --bootstrap 10.0.0.1:29500
