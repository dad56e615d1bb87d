archive --help --json
