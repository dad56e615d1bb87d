archive --help
