model gb300-nvl72:36 --no-nvls -b 64M -e 1G -f 16 --json
