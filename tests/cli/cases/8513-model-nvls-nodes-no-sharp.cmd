model dgx-h100:4 --algo nvls -b 1G -e 1G
