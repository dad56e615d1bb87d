parse tests/fixtures/wild-diag/ethtool-S-bnx2x-per-queue-bracket-names-healthy-ethq6-excerpt.txt
