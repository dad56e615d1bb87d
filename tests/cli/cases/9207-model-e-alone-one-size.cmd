model dgx-h100:2 -e 1M --json
