model --help
