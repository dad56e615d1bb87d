diagnose --spec examples/h200-dragonfly.yaml tests/fixtures/mlnx_qos/mlnx_qos-roce-lossless-dscp-pfc-prio3-netarbiter.txt
