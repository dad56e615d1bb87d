model examples/dgx-h100-sharp.yaml --explain 1K --algo collnet
