bench incast --np 2 --transport shm
