advise tests/fixtures/perfquery/edr-switch-port-xmitdiscards-linkdowned-x.txt tests/fixtures/nvidia-smi-topo/rtx4090-8gpu-pcie-switch-pix-groups-bond-nic.txt
