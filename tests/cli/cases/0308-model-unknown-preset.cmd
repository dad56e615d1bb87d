model dgx-z100
