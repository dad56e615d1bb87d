model examples/mixed-gpus.yaml --op all_reduce --gpus 4 --nodes 2
