sim examples/dgx-h100-sharp.yaml --op all_reduce --algo collnet -b 64M -e 256M -f 4
