bench pairs --np 3 --transport shm -b 64K -n 2 --json-file /nonexistent-fabtune-dir/pairs.json
