model dgx-h100:2 -b 1M -e 64M -f 4 --tuner-only
