sim dgx-h100:2 --op all_reduce --algo ring --proto ll128 -b 1M -e 1G -f 32
