help model --json
