model dgx-a100 --algo nvls
