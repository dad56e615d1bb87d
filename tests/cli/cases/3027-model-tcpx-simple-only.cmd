model gcp-a3-mega:2 -b 8 -e 8G -f 32
