parse --help
