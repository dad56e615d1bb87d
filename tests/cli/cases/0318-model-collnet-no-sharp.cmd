model dgx-h100:4 --algo collnet
