model dgx-h100:2 --explain 64M --proto ll --json
