sim examples/dgx-h100-sharp.yaml --op all_gather -b 1G --algo nvls --json
