spec gb200-nvl72:18
