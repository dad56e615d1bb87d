sim examples/mixed-shapes.yaml --op all_reduce -b 1G --algo ring --proto simple
