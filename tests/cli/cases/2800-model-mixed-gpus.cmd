model examples/mixed-gpus.yaml --op all_reduce -b 64M -e 1G -f 4 --algo ring --proto simple
