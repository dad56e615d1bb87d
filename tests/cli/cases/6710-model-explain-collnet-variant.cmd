model examples/dgx-h100-sharp.yaml --explain 1G --json
