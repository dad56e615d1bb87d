model dgx-h100:2 --maxbyte 1G
