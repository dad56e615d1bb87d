model dgx-h100 --op bcast --algo tree
