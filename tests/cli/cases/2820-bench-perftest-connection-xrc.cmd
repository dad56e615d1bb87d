bench pt2pt_bw --np 2 --transport verbs -c XRC
