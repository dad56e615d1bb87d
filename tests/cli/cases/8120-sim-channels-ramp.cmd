sim dgx-h100:2 --op broadcast --algo ring --proto simple --channels 4 -b 1M -e 64M -f 64 --routing dmodk
