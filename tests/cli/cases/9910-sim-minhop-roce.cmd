sim examples/l40s-roce.yaml --op alltoall -b 1M --routing updn
