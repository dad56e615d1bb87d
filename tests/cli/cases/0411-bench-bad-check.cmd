bench -c 2
