model examples/mixed-gpus.yaml --op all_reduce -b 1G -e 1G --algo ring --proto simple --gpus 10
