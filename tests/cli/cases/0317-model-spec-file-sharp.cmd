model examples/a100-superpod.yaml -b 1M -e 4G -f 64
