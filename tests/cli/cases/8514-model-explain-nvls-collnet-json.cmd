model examples/dgx-h100-sharp.yaml --nodes 2 --explain 1G --json
