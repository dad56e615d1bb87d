sim dgx-h100:2 --op all_reduce -b 256M --algo tree --proto simple --channels 4
