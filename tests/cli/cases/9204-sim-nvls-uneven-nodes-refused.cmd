sim examples/mixed-gpus.yaml --op all_reduce -b 1G --algo nvls
