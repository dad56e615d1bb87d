sim examples/mixed-gpus.yaml --op all_reduce -b 256M --algo tree --proto simple --channels 12
