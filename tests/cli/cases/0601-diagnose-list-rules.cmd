diagnose --list-rules
