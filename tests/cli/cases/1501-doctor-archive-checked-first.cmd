doctor --no-report --archive /nonexistent-fabtune-dir/archive.db
