bench --streams 0 --transport tcp
