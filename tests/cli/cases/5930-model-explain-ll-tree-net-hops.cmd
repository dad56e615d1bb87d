model dgx-h100:2 --explain 128K
