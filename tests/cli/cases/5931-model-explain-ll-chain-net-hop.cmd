model dgx-h100:2 --op broadcast --algo ring --proto ll --explain 1M
