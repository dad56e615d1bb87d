sim examples/dgx-h100-sharp.yaml --ranks 32 --engine flow --op all_reduce --algo collnet_direct -b 1M -e 8M -f 2
