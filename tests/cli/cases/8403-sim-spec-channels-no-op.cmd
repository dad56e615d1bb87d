sim dgx-h100:2 --channels 2
