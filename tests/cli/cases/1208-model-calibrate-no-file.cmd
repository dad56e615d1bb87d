model dgx-h100 --calibrate
