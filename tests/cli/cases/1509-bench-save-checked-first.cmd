bench --np 2 --save --archive /nonexistent-fabtune-dir/a.db
