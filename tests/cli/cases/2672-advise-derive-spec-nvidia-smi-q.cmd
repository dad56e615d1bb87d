advise tests/fixtures/perfquery/edr-switch-port-xmitdiscards-linkdowned-x.txt tests/fixtures/nvidia-smi-q/ml-engineering-a100-8gpu-xid63-remapped-rows-excerpt.txt
