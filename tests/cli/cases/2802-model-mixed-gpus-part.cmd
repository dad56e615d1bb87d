model examples/mixed-gpus.yaml --op all_reduce --gpus 12
