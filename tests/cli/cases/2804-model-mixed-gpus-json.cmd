model examples/mixed-gpus.yaml --op all_gather -b 1G -e 1G --json
