bench --streams 0 -t tcp
