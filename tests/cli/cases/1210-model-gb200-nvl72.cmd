model gb200-nvl72:36 -b 1M -e 8G -f 32
