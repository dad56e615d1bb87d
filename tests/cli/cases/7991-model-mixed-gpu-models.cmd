model examples/mixed-shapes.yaml -b 1G -e 1G
