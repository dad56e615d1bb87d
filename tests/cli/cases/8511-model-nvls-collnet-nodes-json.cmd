model examples/dgx-h100-sharp.yaml --nodes 4 --algo nvls -b 1M -e 1G -f 32 --json
