help archive --json
