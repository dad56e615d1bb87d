sim dgx-h100:2 --op all_reduce -e 4M --json
