sim examples/torus.json --op all_reduce -b 1M --routing valiant
