parse tests/fixtures/wild-diag/mlxlink-spectrum-swp-25gbe-active-healthy-sonic265-excerpt.txt
