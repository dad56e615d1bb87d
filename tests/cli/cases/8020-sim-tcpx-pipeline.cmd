sim gcp-a3-mega:2 --op all_reduce -b 8M -e 128M -f 16 --routing dmodk
