plan --models --json
