sim scenarios/tp2-dp-strided.yaml --engine packet
