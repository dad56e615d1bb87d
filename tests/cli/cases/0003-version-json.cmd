version --json
