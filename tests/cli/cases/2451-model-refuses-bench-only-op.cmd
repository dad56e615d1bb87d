model dgx-h100:16 --op pairs -b 1M
