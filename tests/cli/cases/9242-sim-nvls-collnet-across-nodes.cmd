sim examples/dgx-h100-sharp.yaml --op all_reduce -b 1M -e 1G -f 32 --algo nvls
