bench pt2pt_bw --np 2 --transport tcp -c UD -a
