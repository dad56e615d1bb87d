parse --list
