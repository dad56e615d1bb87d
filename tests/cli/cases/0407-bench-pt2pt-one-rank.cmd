bench pt2pt --transport tcp -n 1
