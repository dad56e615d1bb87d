diagnose --root README.md --json
