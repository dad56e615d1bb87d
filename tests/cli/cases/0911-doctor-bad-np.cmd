doctor --np 1
