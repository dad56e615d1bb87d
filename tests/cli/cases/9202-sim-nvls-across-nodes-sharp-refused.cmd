sim examples/dgx-h100-sharp.yaml --op all_reduce -b 1G --algo nvls --engine packet
