archive export
