sim examples/dgx-h100-sharp.yaml --routing adaptive --op all_reduce --algo collnet_chain -b 16M --engine packet
