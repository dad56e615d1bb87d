model dgx-h100 --explain 1M --algo collnet
