doctor --help
