diagnose tests/fixtures/wild-diag/nvidia-smi-q-remapped-rows-uncorrectable-4-pending-gpud80-excerpt.txt
