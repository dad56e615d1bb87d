spec --help
