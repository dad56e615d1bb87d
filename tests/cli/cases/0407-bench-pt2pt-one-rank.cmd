bench pt2pt -t tcp -n 1
