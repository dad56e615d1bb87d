model dgx-h100 --algo ring --proto simple -b 256M -e 8G -f 2
