diagnose tests/fixtures/xid/syslog-xid149-nvlink-then-xid154-recovery-actions-format.txt
