bench pt2pt_bw --transport tcp -a -F --report_gbits
