diagnose --root tests/fixtures/sysfs/roce-cc tests/fixtures/mlnx_qos/mlnx_qos-roce-lossless-dscp-pfc-prio3-netarbiter.txt
