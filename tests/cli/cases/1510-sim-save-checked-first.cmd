sim scenarios/degraded-link-ring.yaml --save --archive /nonexistent-fabtune-dir/a.db
