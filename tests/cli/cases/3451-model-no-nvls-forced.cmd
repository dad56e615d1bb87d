model dgx-h100:2 --algo nvls_tree --no-nvls -b 1G -e 1G
