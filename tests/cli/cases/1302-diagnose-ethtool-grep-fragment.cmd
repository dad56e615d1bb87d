diagnose tests/fixtures/ethtool-S/intel-e810-ethtool-S-grep-prio-xoff-excerpt.txt
