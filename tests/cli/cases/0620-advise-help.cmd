advise --help
